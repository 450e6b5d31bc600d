// resources/read: a vault file by its URI. Text files (notes and the other text formats read_note reads) come back as
// read_note renders the whole file, header line and limits included; any other file as a base64 blob of its bytes,
// up to BLOB_LIMIT. Every rule of the tools holds: the path rules, hidden paths (a hidden file is not found) and
// the check that the file's real location is inside the vault.

import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, type ReadResourceResult } from "@modelcontextprotocol/server";
import { TFile } from "obsidian";
import { renderRead } from "../tools/common";
import { ToolError, type ToolContext } from "../tools/types";
import { readBytesVerified, readVerified } from "../vault/disk";
import { visibleAt } from "../vault/hidden";
import { MAX_CHARS_DEFAULT, mib } from "../vault/limits";
import { splitLines } from "../vault/lines";
import { cleanVaultPath } from "../vault/paths";
import { kindOf } from "./mime";
import { pathOf, URI_PREFIX } from "./uri";

/** The largest file resources/read returns as a blob. */
export const BLOB_LIMIT = 10 * 1024 * 1024;

export async function readResource(ctx: ToolContext, uri: string): Promise<ReadResourceResult> {
  const raw = pathOf(uri);
  if (raw === null) {
    throw new ResourceNotFoundError(uri, `Resource not found: ${uri} is not a vault file URI (they look like ${URI_PREFIX}Folder/Note.md)`);
  }
  const path = await refused(uri, async () => cleanVaultPath(raw, ctx));
  const entry = visibleAt(ctx, path);
  if (!(entry instanceof TFile)) {
    const what = entry || path === "" ? `${JSON.stringify(path)} is a folder, not a file` : `no file ${JSON.stringify(path)} in the vault`;
    throw new ResourceNotFoundError(uri, `Resource not found: ${uri} (${what})`);
  }
  const kind = kindOf(entry.extension);
  if (kind.text) {
    const text = await refused(uri, () => readVerified(ctx, entry));
    const whole = { start: 0, end: splitLines(text).length, maxChars: MAX_CHARS_DEFAULT };
    return { contents: [{ uri, mimeType: kind.mimeType, text: renderRead(entry, text, whole).text }] };
  }
  const tooLarge = (size: number) =>
    new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `${path} is ${mib(size)} MiB (${size} bytes); resources/read returns files up to ${mib(BLOB_LIMIT)} MiB`,
      { uri, size, limit: BLOB_LIMIT },
    );
  const bytes = await refused(uri, () => readBytesVerified(ctx, entry, BLOB_LIMIT, tooLarge));
  return { contents: [{ uri, mimeType: kind.mimeType, blob: bytes.toString("base64") }] };
}

/** A path or disk rule's refusal (a ToolError) as the invalid-params error of this read. */
async function refused<T>(uri: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw error instanceof ToolError ? new ProtocolError(ProtocolErrorCode.InvalidParams, `${uri}: ${error.message}`) : error;
  }
}

