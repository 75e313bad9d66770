//! The step failure taxonomy as data: 3 levels, 9 categories, 21
//! subcategories, after `AgentEval` (Guo, Wu, Yiu, arXiv 2604.23581).
//!
//! The published abstract fixes the shape (three levels — Planning,
//! Execution, Integration — and 21 subcategories) but the full table was not
//! retrievable here, so the categories and subcategories below are our own
//! faithful reconstruction from DESIGN §5–§6 and the step types they cover.
//! The names are stable identifiers: they land in reports and baselines.
//!
//! | level | category | subcategories |
//! |---|---|---|
//! | Planning | `task_understanding` | `goal_misinterpretation`, `constraint_violation` |
//! | Planning | `plan_construction` | `incomplete_plan`, `infeasible_plan` |
//! | Planning | `tool_selection` | `unknown_tool`, `wrong_tool`, `unexpected_tool` |
//! | Execution | `parameter_generation` | `missing_required_parameter`, `parameter_type_mismatch`, `invalid_enum_value`, `invalid_parameter_value` |
//! | Execution | `tool_execution` | `tool_error_response`, `tool_timeout` |
//! | Execution | `control_flow` | `retry_loop`, `premature_termination` |
//! | Integration | `information_flow` | `lost_context`, `tool_output_misinterpretation` |
//! | Integration | `output_synthesis` | `unfaithful_output`, `incomplete_output`, `incorrect_answer` |
//! | Integration | `agent_coordination` | `handoff_failure` |
//!
//! What the rules scorer labels (everything else needs a judge):
//!
//! | step | what the rules see | label |
//! |---|---|---|
//! | TOOLSEL | a tool not in the suite's `tools:` catalog | `Planning/tool_selection/unknown_tool` |
//! | TOOLSEL | a tool the `workflow:` schema does not name | `Planning/tool_selection/unexpected_tool` |
//! | PARAMGEN | a `required` argument is absent | `Execution/parameter_generation/missing_required_parameter` |
//! | PARAMGEN | an argument has the wrong JSON type | `Execution/parameter_generation/parameter_type_mismatch` |
//! | PARAMGEN | a value outside `enum`/`const` | `Execution/parameter_generation/invalid_enum_value` |
//! | PARAMGEN | any other JSON Schema violation | `Execution/parameter_generation/invalid_parameter_value` |
//! | EXEC | span status `error`, or an error-looking result | `Execution/tool_execution/tool_error_response` |
//! | EXEC | a timeout (status message, `error.type`, result) | `Execution/tool_execution/tool_timeout` |
//! | SYNTH | the final answer fails the case's `expected_output` | `Integration/output_synthesis/incorrect_answer` |

use std::fmt;

use crate::model::run::TaxonomyLabel;

/// Level 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Planning,
    Execution,
    Integration,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Planning => "Planning",
            Self::Execution => "Execution",
            Self::Integration => "Integration",
        }
    }
}

/// Level 2: the 9 categories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    TaskUnderstanding,
    PlanConstruction,
    ToolSelection,
    ParameterGeneration,
    ToolExecution,
    ControlFlow,
    InformationFlow,
    OutputSynthesis,
    AgentCoordination,
}

impl Category {
    pub const ALL: [Self; 9] = [
        Self::TaskUnderstanding,
        Self::PlanConstruction,
        Self::ToolSelection,
        Self::ParameterGeneration,
        Self::ToolExecution,
        Self::ControlFlow,
        Self::InformationFlow,
        Self::OutputSynthesis,
        Self::AgentCoordination,
    ];

    pub fn level(self) -> Level {
        match self {
            Self::TaskUnderstanding | Self::PlanConstruction | Self::ToolSelection => {
                Level::Planning
            }
            Self::ParameterGeneration | Self::ToolExecution | Self::ControlFlow => Level::Execution,
            Self::InformationFlow | Self::OutputSynthesis | Self::AgentCoordination => {
                Level::Integration
            }
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::TaskUnderstanding => "task_understanding",
            Self::PlanConstruction => "plan_construction",
            Self::ToolSelection => "tool_selection",
            Self::ParameterGeneration => "parameter_generation",
            Self::ToolExecution => "tool_execution",
            Self::ControlFlow => "control_flow",
            Self::InformationFlow => "information_flow",
            Self::OutputSynthesis => "output_synthesis",
            Self::AgentCoordination => "agent_coordination",
        }
    }
}

/// Level 3: the 21 subcategories, each with its category and a definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Failure {
    GoalMisinterpretation,
    ConstraintViolation,
    IncompletePlan,
    InfeasiblePlan,
    UnknownTool,
    WrongTool,
    UnexpectedTool,
    MissingRequiredParameter,
    ParameterTypeMismatch,
    InvalidEnumValue,
    InvalidParameterValue,
    ToolErrorResponse,
    ToolTimeout,
    RetryLoop,
    PrematureTermination,
    LostContext,
    ToolOutputMisinterpretation,
    UnfaithfulOutput,
    IncompleteOutput,
    IncorrectAnswer,
    HandoffFailure,
}

/// `(failure, category, id, definition)` for every subcategory.
const TABLE: [(Failure, Category, &str, &str); 21] = [
    (
        Failure::GoalMisinterpretation,
        Category::TaskUnderstanding,
        "goal_misinterpretation",
        "the step pursues a goal other than the user's",
    ),
    (
        Failure::ConstraintViolation,
        Category::TaskUnderstanding,
        "constraint_violation",
        "the step ignores a stated constraint or policy",
    ),
    (
        Failure::IncompletePlan,
        Category::PlanConstruction,
        "incomplete_plan",
        "the plan leaves out steps the task needs",
    ),
    (
        Failure::InfeasiblePlan,
        Category::PlanConstruction,
        "infeasible_plan",
        "the plan relies on steps or tools that cannot work",
    ),
    (
        Failure::UnknownTool,
        Category::ToolSelection,
        "unknown_tool",
        "the model selected a tool that does not exist",
    ),
    (
        Failure::WrongTool,
        Category::ToolSelection,
        "wrong_tool",
        "an existing tool that does not serve the step",
    ),
    (
        Failure::UnexpectedTool,
        Category::ToolSelection,
        "unexpected_tool",
        "a tool the workflow does not call for",
    ),
    (
        Failure::MissingRequiredParameter,
        Category::ParameterGeneration,
        "missing_required_parameter",
        "a required argument is absent",
    ),
    (
        Failure::ParameterTypeMismatch,
        Category::ParameterGeneration,
        "parameter_type_mismatch",
        "an argument has the wrong type",
    ),
    (
        Failure::InvalidEnumValue,
        Category::ParameterGeneration,
        "invalid_enum_value",
        "an argument is outside its allowed values",
    ),
    (
        Failure::InvalidParameterValue,
        Category::ParameterGeneration,
        "invalid_parameter_value",
        "an argument breaks another schema constraint or is wrong",
    ),
    (
        Failure::ToolErrorResponse,
        Category::ToolExecution,
        "tool_error_response",
        "the tool failed or answered with an error",
    ),
    (
        Failure::ToolTimeout,
        Category::ToolExecution,
        "tool_timeout",
        "the tool did not answer in time",
    ),
    (
        Failure::RetryLoop,
        Category::ControlFlow,
        "retry_loop",
        "the agent repeats a step without progress",
    ),
    (
        Failure::PrematureTermination,
        Category::ControlFlow,
        "premature_termination",
        "the agent stopped before the task was done",
    ),
    (
        Failure::LostContext,
        Category::InformationFlow,
        "lost_context",
        "information from an earlier step did not reach this one",
    ),
    (
        Failure::ToolOutputMisinterpretation,
        Category::InformationFlow,
        "tool_output_misinterpretation",
        "a tool result was misread",
    ),
    (
        Failure::UnfaithfulOutput,
        Category::OutputSynthesis,
        "unfaithful_output",
        "the answer states what the steps do not support",
    ),
    (
        Failure::IncompleteOutput,
        Category::OutputSynthesis,
        "incomplete_output",
        "the answer leaves out what was asked",
    ),
    (
        Failure::IncorrectAnswer,
        Category::OutputSynthesis,
        "incorrect_answer",
        "the answer does not match the expected output",
    ),
    (
        Failure::HandoffFailure,
        Category::AgentCoordination,
        "handoff_failure",
        "work passed between agents was lost or garbled",
    ),
];

impl Failure {
    /// Every subcategory, in taxonomy order.
    pub const ALL: [Self; 21] = {
        let mut all = [Self::GoalMisinterpretation; 21];
        let mut i = 0;
        while i < 21 {
            all[i] = TABLE[i].0;
            i += 1;
        }
        all
    };

    fn row(self) -> &'static (Failure, Category, &'static str, &'static str) {
        // TABLE lists the variants in declaration order, so the discriminant is the row.
        &TABLE[self as usize]
    }

    pub fn category(self) -> Category {
        self.row().1
    }

    pub fn level(self) -> Level {
        self.category().level()
    }

    pub fn as_str(self) -> &'static str {
        self.row().2
    }

    pub fn definition(self) -> &'static str {
        self.row().3
    }

    /// The report's `{l1, l2, l3}` label.
    pub fn label(self) -> TaxonomyLabel {
        TaxonomyLabel {
            l1: self.level().as_str().to_owned(),
            l2: self.category().as_str().to_owned(),
            l3: self.as_str().to_owned(),
        }
    }

    /// Look a subcategory up by its id (`missing_required_parameter`).
    pub fn from_id(id: &str) -> Option<Self> {
        TABLE.iter().find(|row| row.2 == id).map(|row| row.0)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}/{}",
            self.level().as_str(),
            self.category().as_str(),
            self.as_str()
        )
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn taxonomy_has_three_levels_nine_categories_and_21_subcategories() {
        for (i, row) in TABLE.iter().enumerate() {
            assert_eq!(
                row.0 as usize, i,
                "TABLE row {i} is out of declaration order"
            );
        }
        let levels: BTreeSet<Level> = Failure::ALL.iter().map(|f| f.level()).collect();
        let categories: BTreeSet<Category> = Failure::ALL.iter().map(|f| f.category()).collect();
        let ids: BTreeSet<&str> = Failure::ALL.iter().map(|f| f.as_str()).collect();
        assert_eq!(levels.len(), 3);
        assert_eq!(categories.len(), 9);
        assert_eq!(categories, Category::ALL.into_iter().collect());
        assert_eq!(ids.len(), 21);
        for c in Category::ALL {
            assert_eq!(
                Category::ALL
                    .iter()
                    .filter(|x| x.level() == c.level())
                    .count(),
                3
            );
        }
    }

    #[test]
    fn labels_and_ids_round_trip() {
        let label = Failure::InvalidEnumValue.label();
        assert_eq!(
            (label.l1.as_str(), label.l2.as_str(), label.l3.as_str()),
            ("Execution", "parameter_generation", "invalid_enum_value")
        );
        assert_eq!(Failure::from_id("tool_timeout"), Some(Failure::ToolTimeout));
        assert_eq!(
            Failure::UnknownTool.to_string(),
            "Planning/tool_selection/unknown_tool"
        );
        assert_eq!(Failure::from_id("nope"), None);
    }
}
