//! `read_attachment` from disk (`tools/attachments.ts`): an image as image content, audio as audio content, a PDF or
//! any other non-text file as an embedded resource, each under its size limit.

use base64::Engine;
use serde_json::json;

use super::{Args, Context, Output, ToolError};
use crate::offline::plugin::resources::{kind_of, uri_of};
use crate::offline::plugin::vault::paths::{BytesRefusal, mib, quote};

const IMAGE_EXTENSIONS: [&str; 5] = ["png", "jpg", "jpeg", "gif", "webp"];
const IMAGE_LIMIT: u64 = 5 * 1024 * 1024;
const AUDIO_EXTENSIONS: [&str; 5] = ["mp3", "wav", "m4a", "ogg", "flac"];
const FILE_LIMIT: u64 = 10 * 1024 * 1024;

pub(super) fn read_attachment(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    let path = args.required_string("path", 1, usize::MAX)?;
    let file = ctx.resolve_note(&path, false)?.file;
    let (mime, text) = kind_of(file.extension());
    if text {
        return Err(ToolError(format!(
            "{} is a text file: read it with read_note",
            file.path
        )));
    }
    let extension = file.extension().to_lowercase();
    let image = IMAGE_EXTENSIONS.contains(&extension.as_str());
    let (limit, what) = if image {
        (IMAGE_LIMIT, "images")
    } else {
        (FILE_LIMIT, "files")
    };
    let bytes = ctx.bytes_of(file, limit).map_err(|refusal| match refusal {
        BytesRefusal::Refused(error) => error,
        BytesRefusal::TooLarge(size) => ToolError(format!(
            "{} is {} MiB ({size} bytes); read_attachment returns {what} up to {} MiB",
            file.path,
            mib(size),
            mib(limit)
        )),
    })?;
    let size = bytes.len();
    let data = base64::engine::general_purpose::STANDARD.encode(bytes);
    let block = if image {
        json!({ "type": "image", "data": data, "mimeType": mime })
    } else if AUDIO_EXTENSIONS.contains(&extension.as_str()) {
        json!({ "type": "audio", "data": data, "mimeType": mime })
    } else {
        json!({ "type": "resource", "resource": { "uri": uri_of(&file.path), "mimeType": mime, "blob": data } })
    };
    Ok(Output::Attachment {
        header: format!(
            "[attachment] path={} mimeType={mime} size={size}",
            quote(&file.path)
        ),
        block,
    })
}
