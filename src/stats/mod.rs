//! Statistics: paired bootstrap, Benjamini-Hochberg, the historical 2-sigma band (DESIGN §8). Pure and synchronous.
