//! LLM judges behind one trait (DESIGN §7). Not built yet.
