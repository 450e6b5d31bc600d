//! Questions for the guided run, behind a small trait: `dialoguer` on a terminal, scripted answers in tests.

use std::path::Path;

use obsmcp_installer::clients::ClientSpec;
use obsmcp_installer::setup::Decisions;

/// The questions setup and uninstall ask.
pub(crate) trait Prompter {
    /// Picks any number of `items`; `checked` says which start selected.
    fn select(
        &mut self,
        prompt: &str,
        items: &[String],
        checked: &[bool],
    ) -> anyhow::Result<Vec<usize>>;
    /// A yes/no question.
    fn confirm(&mut self, prompt: &str, default: bool) -> anyhow::Result<bool>;
    /// A line of text.
    fn input(&mut self, prompt: &str) -> anyhow::Result<String>;
}

/// The terminal prompter.
pub(crate) struct Terminal;

impl Prompter for Terminal {
    fn select(
        &mut self,
        prompt: &str,
        items: &[String],
        checked: &[bool],
    ) -> anyhow::Result<Vec<usize>> {
        Ok(dialoguer::MultiSelect::new()
            .with_prompt(prompt)
            .items(items)
            .defaults(checked)
            .interact()?)
    }

    fn input(&mut self, prompt: &str) -> anyhow::Result<String> {
        Ok(dialoguer::Input::<String>::new()
            .with_prompt(prompt)
            .interact_text()?)
    }

    fn confirm(&mut self, prompt: &str, default: bool) -> anyhow::Result<bool> {
        // Enter confirms: answering on the `y` keypress alone let the Enter that usually follows fall through to the
        // next question and answer it with its default.
        Ok(dialoguer::Confirm::new()
            .with_prompt(prompt)
            .default(default)
            .wait_for_newline(true)
            .interact()?)
    }
}

/// Asks before replacing a foreign entry; a failed prompt counts as "no", which keeps the user's entry.
pub(crate) struct AskToReplace<'a> {
    /// Who asks.
    pub(crate) prompter: &'a mut dyn Prompter,
}

impl Decisions for AskToReplace<'_> {
    fn replace_existing(&mut self, client: &ClientSpec, name: &str, existing: &str) -> bool {
        let question = format!(
            "{}: the server `{name}` runs {existing}. Replace it with obsmcp?",
            client.name
        );
        self.prompter.confirm(&question, false).unwrap_or(false)
    }

    fn same_vault(&mut self, gone: &Path, here: &Path) -> bool {
        let question = format!(
            "obsmcp was set up for a vault at {}, which is gone. Is {} that vault, moved or renamed?",
            gone.display(),
            here.display()
        );
        self.prompter.confirm(&question, false).unwrap_or(false)
    }
}

#[cfg(test)]
pub(crate) mod scripted {
    use std::collections::VecDeque;

    use super::Prompter;

    /// Answers from a script, and records the questions.
    #[derive(Default)]
    pub(crate) struct Scripted {
        pub(crate) selections: VecDeque<Vec<usize>>,
        pub(crate) confirmations: VecDeque<bool>,
        pub(crate) inputs: VecDeque<String>,
        pub(crate) asked: Vec<String>,
    }

    impl Prompter for Scripted {
        fn select(
            &mut self,
            prompt: &str,
            items: &[String],
            checked: &[bool],
        ) -> anyhow::Result<Vec<usize>> {
            self.asked.push(format!("{prompt}: {items:?} {checked:?}"));
            Ok(self.selections.pop_front().expect("a scripted selection"))
        }

        fn input(&mut self, prompt: &str) -> anyhow::Result<String> {
            self.asked.push(prompt.to_owned());
            Ok(self.inputs.pop_front().expect("a scripted input"))
        }

        fn confirm(&mut self, prompt: &str, _default: bool) -> anyhow::Result<bool> {
            self.asked.push(prompt.to_owned());
            Ok(self
                .confirmations
                .pop_front()
                .expect("a scripted confirmation"))
        }
    }
}
