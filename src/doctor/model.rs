//! The machine's check of search by meaning's model: the one `obsmcp setup --semantic` put in the state folder, each
//! file checked against the record setup wrote, and loaded as the bridge would load it. Without one it is a skip that
//! says how to get one: search by meaning is optional.

use obsmcp_installer::environment::Environment;

use super::report::Check;
use crate::embedding;
use crate::offline::semantic::model::Model;

const ID: &str = "model.embedding";

/// The model check.
pub(super) fn check(environment: &Environment) -> Check {
    let folder = embedding::folder(&environment.state_home());
    let set_up = embedding::set_up_by_obsmcp(&environment.state_home()).is_some();
    if !set_up && !folder.exists() {
        return Check::skip(
            ID,
            "search by meaning: no embedding model (optional; `obsmcp setup --semantic` downloads one, 31 MB)",
        );
    }
    let recorded = if set_up {
        match embedding::verify(&folder) {
            Ok(manifest) => Some(manifest),
            Err(problem) => {
                return Check::fail(
                    ID,
                    format!("search by meaning: the model is damaged: {problem}"),
                    "obsmcp setup --semantic",
                );
            }
        }
    } else {
        None
    };
    match Model::load(&folder) {
        Ok(model) => Check::ok(
            ID,
            format!(
                "search by meaning: {} in {} ({} dimensions{})",
                recorded
                    .as_ref()
                    .map_or("a model of your own", |manifest| manifest.source.as_str()),
                folder.display(),
                model.dims(),
                if recorded.is_some() {
                    ", each file as setup recorded it"
                } else {
                    ""
                },
            ),
        ),
        Err(error) => Check::fail(
            ID,
            format!(
                "search by meaning: the model in {} cannot be used: {error}",
                folder.display()
            ),
            "obsmcp setup --semantic (or --semantic --model FOLDER with a Model2Vec model you have)",
        ),
    }
}
