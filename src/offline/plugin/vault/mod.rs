//! The twins of `obsidian-plugin/src/vault/*.ts`: the rules below the tools (paths and the hidden-path rules, limits,
//! lines, sections, links, tasks, daily notes, canvas, Bases, hashes, regexes, and the error they refuse with).

pub(crate) mod bases;
pub(crate) mod canvas;
pub(crate) mod daily;
pub(crate) mod errors;
pub(crate) mod hash;
pub(crate) mod hidden;
pub(crate) mod limits;
pub(crate) mod lines;
pub(crate) mod links;
pub(crate) mod paths;
pub(crate) mod regex;
pub(crate) mod sections;
pub(crate) mod tasks;
