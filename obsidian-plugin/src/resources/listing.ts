// resources/list and resources/templates/list: every visible file of the vault as a resource, in path order, a page
// at a time; and the one template that names a file by its path (completed by ./complete.ts).

import type { Resource, ResourceTemplateType } from "@modelcontextprotocol/server";
import { isoTime } from "../tools/common";
import type { ToolContext } from "../tools/types";
import { firstAtOrAfter, type FileIndex, type IndexedFile } from "../vault/file-index";
import { Slices } from "../vault/slices";
import { hiddenChecker } from "../vault/hidden";
import { configDirChecker } from "../vault/paths";
import { kindOf } from "./mime";
import { PATH_TEMPLATE, uriOf } from "./uri";

/** Resources per page of resources/list. */
export const PAGE_SIZE = 500;

/** The template clients offer for `@`-mentions, and complete through completion/complete. */
export const PATH_TEMPLATE_ENTRY: ResourceTemplateType = {
  uriTemplate: PATH_TEMPLATE,
  name: "vault-file",
  title: "Vault file",
  description:
    "A note or attachment of the vault by its vault-relative path, e.g. Projects/Plan.md or Images/chart.png " +
    "(completion suggests paths by file name, alias and path).",
};

/** Whether a call may see this file at all: outside the config folder and not hidden. */
export function visibleFileTest(ctx: ToolContext): (entry: IndexedFile) => boolean {
  const hidden = hiddenChecker(ctx);
  const inConfigDir = configDirChecker(ctx);
  return (entry) => !inConfigDir(entry.file.path) && !hidden(entry.file.path);
}

/** The resource a file is listed as. */
export function resourceOf(entry: IndexedFile): Resource {
  const { file } = entry;
  return {
    uri: uriOf(file.path),
    name: file.path,
    title: entry.name,
    mimeType: kindOf(file.extension).mimeType,
    size: file.stat.size,
    annotations: { lastModified: isoTime(file.stat.mtime) },
  };
}

/** One page: the files after `cursor` (the last path of the previous page) in path order. */
export async function listPage(ctx: ToolContext, index: FileIndex, cursor: string | undefined): Promise<{ resources: Resource[]; nextCursor?: string }> {
  const slices = new Slices(ctx.signal, "resources/list");
  const files = await index.filesInSlices(slices);
  const visible = visibleFileTest(ctx);
  let at = cursor === undefined ? 0 : firstAfter(files, cursor);
  const resources: Resource[] = [];
  let last: string | undefined;
  for (; at < files.length && resources.length < PAGE_SIZE; at++) {
    if (slices.due()) await slices.pause();
    if (!visible(files[at])) continue;
    resources.push(resourceOf(files[at]));
    last = files[at].file.path;
  }
  while (at < files.length && !visible(files[at])) {
    if (slices.due()) await slices.pause();
    at++;
  }
  return at < files.length && last !== undefined ? { resources, nextCursor: last } : { resources };
}

/** The index of the first file whose path sorts after `path`. */
function firstAfter(files: readonly IndexedFile[], path: string): number {
  const at = firstAtOrAfter(files, path);
  return files[at]?.file.path === path ? at + 1 : at;
}
