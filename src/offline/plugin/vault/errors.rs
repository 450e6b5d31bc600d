//! The error every offline tool, resource and path check returns (`ToolError` in the plugin's `tools/types.ts`): a
//! leaf, so that the path rules below the tools can refuse with it without importing the tools.

/// A refusal or lookup failure, shown to the agent as the tool's error text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolError(pub(crate) String);

impl ToolError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}
