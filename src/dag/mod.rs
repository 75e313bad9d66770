//! The evaluation DAG: step nodes built from the span model, retries unrolled, schema workflows matched (DESIGN §5).
