// The full tool list the server registers (and the catalog generator serializes), in the documented order.

import { ATTACHMENT_TOOLS } from "./attachments";
import { BASE_TOOLS } from "./bases";
import { BOOKMARK_TOOLS } from "./bookmarks";
import { CANVAS_TOOLS } from "./canvas";
import { batch } from "./batch";
import { FILE_TOOLS } from "./files";
import { LINK_TOOLS } from "./links";
import { READ_TOOLS } from "./read";
import { SEARCH_TOOLS } from "./search";
import { TAG_TOOLS } from "./tags";
import { TASK_TOOLS } from "./tasks";
import { TEMPLATE_TOOLS } from "./templates";
import { PROPERTY_TOOLS } from "./properties";
import type { ToolDef } from "./types";
import { WORKSPACE_TOOLS } from "./workspace";
import { WRITE_TOOLS } from "./write";

/** Tool names in the order tools/list presents them; fixed so the Rust side and the docs can rely on them. */
const ORDER = [
  "vault_info",
  "list_files",
  "read_note",
  "read_attachment",
  "search",
  "note_metadata",
  "outline",
  "backlinks",
  "outgoing_links",
  "unresolved_links",
  "orphans",
  "tags",
  "files_by_tag",
  "tasks",
  "properties",
  "active_note",
  "daily_note",
  "recent_files",
  "bookmarks",
  "templates",
  "canvas",
  "bases",
  "create_note",
  "create_daily_note",
  "create_from_template",
  "str_replace",
  "patch_section",
  "append",
  "insert_at_line",
  "set_property",
  "delete_property",
  "set_task",
  "edit_canvas",
  "move_note",
  "delete_note",
  "open_note",
  "batch",
];

const defined: ToolDef[] = [
  ...READ_TOOLS,
  ...ATTACHMENT_TOOLS,
  ...SEARCH_TOOLS,
  ...LINK_TOOLS,
  ...TAG_TOOLS,
  ...TASK_TOOLS,
  ...PROPERTY_TOOLS,
  ...BOOKMARK_TOOLS,
  ...TEMPLATE_TOOLS,
  ...CANVAS_TOOLS,
  ...BASE_TOOLS,
  ...WORKSPACE_TOOLS,
  ...WRITE_TOOLS,
  ...FILE_TOOLS,
  batch,
];

/** Every tool, in ORDER. */
export const ALL_TOOLS: ToolDef[] = ORDER.map((name) => {
  const tool = defined.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`tool ${name} is listed but not defined`);
  return tool;
});
