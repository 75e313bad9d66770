//! The evaluation DAG, step scores and root causes on inputs whose answers
//! are known: hand-built traces and DAGs, property tests, the rules scorer's
//! taxonomy outcomes, the views, and the tau-bench subset.

#[cfg(test)]
mod accuracy;
#[cfg(test)]
mod build;
#[cfg(test)]
mod charge;
#[cfg(test)]
mod formats;
#[cfg(test)]
mod props;
#[cfg(test)]
mod rca;
#[cfg(test)]
mod rules;
#[cfg(test)]
mod support;
#[cfg(test)]
mod tau;
#[cfg(test)]
mod views;
#[cfg(test)]
mod workflow_scope;
