// Attachments the model can see: an image of the vault as image content, audio as audio content, a PDF (or any
// other file that is not text) as an embedded resource with its bytes. Each under a size limit, refused above it
// with the size and the limit; nothing is scaled (that would need a native image library in Obsidian). A note's
// attachments are the `embeds` of note_metadata, each with the vault path it resolves to.

import { z } from "zod";
import type { ImageContent, AudioContent, EmbeddedResource } from "@modelcontextprotocol/server";
import { kindOf } from "../resources/mime";
import { uriOf } from "../resources/uri";
import { readBytesVerified } from "../vault/disk";
import { mib } from "../vault/limits";
import { resolveNote } from "../vault/resolve";
import { defineTool, ToolError } from "./types";

/** Images clients show to a model, and the most read_attachment returns of one (the common API limit). */
const IMAGE_EXTENSIONS = new Set(["png", "jpg", "jpeg", "gif", "webp"]);
export const IMAGE_LIMIT = 5 * 1024 * 1024;
/** Audio given as audio content. */
const AUDIO_EXTENSIONS = new Set(["mp3", "wav", "m4a", "ogg", "flac"]);
/** The most read_attachment returns of audio, a PDF or any other file. */
export const FILE_LIMIT = 10 * 1024 * 1024;


export const readAttachment = defineTool({
  name: "read_attachment",
  title: "Read attachment",
  description:
    "An image, audio file or PDF of the vault for the model to see: images (png, jpeg, gif, webp) as image content up " +
    "to 5 MiB; audio (mp3, wav, m4a, ogg, flac) as audio and PDFs or other files as an embedded resource, up to 10 MiB. " +
    "note_metadata's embeds list a note's attachments.",
  input: {
    path: z
      .string()
      .min(1)
      .describe('Vault-relative path or link name of the file, e.g. "Attachments/chart.png", "chart.png" or "![[chart.png]]".'),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const { file } = resolveNote(ctx, args.path, { textOnly: false });
    const { mimeType, text } = kindOf(file.extension);
    if (text) throw new ToolError(`${file.path} is a text file: read it with read_note`);
    const extension = file.extension.toLowerCase();
    const image = IMAGE_EXTENSIONS.has(extension);
    const limit = image ? IMAGE_LIMIT : FILE_LIMIT;
    const what = image ? "images" : "files";
    const bytes = await readBytesVerified(ctx, file, limit, (size) =>
      new ToolError(`${file.path} is ${mib(size)} MiB (${size} bytes); read_attachment returns ${what} up to ${mib(limit)} MiB`),
    );
    const data = bytes.toString("base64");
    let block: ImageContent | AudioContent | EmbeddedResource;
    if (image) block = { type: "image", data, mimeType };
    else if (AUDIO_EXTENSIONS.has(extension)) block = { type: "audio", data, mimeType };
    else block = { type: "resource", resource: { uri: uriOf(file.path), mimeType, blob: data } };
    return { text: `[attachment] path=${JSON.stringify(file.path)} mimeType=${mimeType} size=${bytes.length}`, content: [block] };
  },
});

export const ATTACHMENT_TOOLS = [readAttachment];
