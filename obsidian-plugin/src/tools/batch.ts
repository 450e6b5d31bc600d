// `batch`: up to 8 read-only tool calls in one request, run in order under one shared output budget. Each call's
// arguments are validated with that tool's own schema and each call fails on its own; a call that would overflow
// the budget is cut (tools with max_chars are asked for no more than what is left) and says so.

import { z } from "zod";
import { cutChars, maxCharsArg } from "../vault/limits";
import { READ_TOOLS } from "./read";
import { SEARCH_TOOLS } from "./search";
import { LINK_TOOLS } from "./links";
import { TAG_TOOLS } from "./tags";
import { WORKSPACE_TOOLS } from "./workspace";
import { json, nextCall } from "./common";
import { defineTool, ToolError } from "./types";
import type { ToolDef } from "./types";

export const MAX_BATCH_CALLS = 8;
/** Below this many characters of budget left, further calls are not run. */
const MIN_CALL_BUDGET = 100;
/** Room left for a result's own framing (read header with its continue_with call, JSON envelope) when a tool's max_chars is lowered. */
const FRAMING_RESERVE = 600;

const BATCHABLE: ToolDef[] = [...READ_TOOLS, ...SEARCH_TOOLS, ...LINK_TOOLS, ...TAG_TOOLS, ...WORKSPACE_TOOLS].filter(
  (tool) => tool.annotations.readOnlyHint,
);

interface CallResult {
  tool: string;
  ok: boolean;
  text?: string;
  error?: string;
  truncated?: boolean;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.join(".") : "arguments"}: ${issue.message}`)
    .join("; ");
}

export const batch = defineTool({
  name: "batch",
  cache: "wait",
  title: "Batch read",
  description:
    `Run up to ${MAX_BATCH_CALLS} read-only tool calls in order in one request. Results come back in order, each with ` +
    "its own ok/error; max_chars is shared by all results.",
  input: {
    calls: z
      .array(
        z.object({
          tool: z.string().min(1).describe("Name of a read-only tool, e.g. read_note or search."),
          arguments: z.record(z.string(), z.unknown()).default({}).describe("That tool's arguments."),
        }),
      )
      .min(1)
      .max(MAX_BATCH_CALLS)
      .describe(`The calls, 1 to ${MAX_BATCH_CALLS}.`),
    max_chars: maxCharsArg("all results together"),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const results: CallResult[] = [];
    const notRun: typeof args.calls = [];
    let used = 0;
    let truncated = false;
    for (const call of args.calls) {
      const remaining = args.max_chars - used;
      if (ctx.signal.aborted) throw new ToolError("batch cancelled");
      if (remaining < MIN_CALL_BUDGET) {
        results.push({ tool: call.tool, ok: false, error: "not run: the batch's max_chars budget is used up" });
        notRun.push(call);
        truncated = true;
        continue;
      }
      const tool = BATCHABLE.find((candidate) => candidate.name === call.tool);
      if (!tool) {
        const reason =
          call.tool === "batch"
            ? "batch cannot be nested"
            : call.tool === "read_attachment"
              ? "read_attachment cannot run in a batch (an image or audio does not fit a batch's text): call it on its own"
              : `${JSON.stringify(call.tool)} is not a read-only tool (batch runs only: ${BATCHABLE.map((t) => t.name).join(", ")})`;
        results.push({ tool: call.tool, ok: false, error: reason });
        continue;
      }
      const parsed = z.object(tool.input).safeParse(call.arguments);
      if (!parsed.success) {
        results.push({ tool: call.tool, ok: false, error: `invalid arguments: ${describeIssues(parsed.error)}` });
        continue;
      }
      const toolArgs = parsed.data as Record<string, unknown>;
      if ("max_chars" in tool.input && typeof toolArgs.max_chars === "number") {
        toolArgs.max_chars = Math.max(MIN_CALL_BUDGET, Math.min(toolArgs.max_chars, remaining - FRAMING_RESERVE));
      }
      try {
        const { text } = await tool.run(toolArgs, ctx);
        const cut = text.length > remaining;
        results.push(cut ? { tool: call.tool, ok: true, text: cutChars(text, remaining), truncated: true } : { tool: call.tool, ok: true, text });
        used += Math.min(text.length, remaining);
        truncated ||= cut;
      } catch (error) {
        // Like the server, only a ToolError's message is shown: other errors may carry paths of this machine.
        const message =
          error instanceof ToolError ? error.message : `${call.tool} failed unexpectedly (${error instanceof Error ? error.name : typeof error})`;
        results.push({ tool: call.tool, ok: false, error: message });
      }
    }
    // The calls left out lead the result as the batch that runs them, so that a client cutting its end still shows it.
    const rest = notRun.length > 0 ? { continue_with: nextCall("batch", args, { calls: notRun }) } : {};
    return json({ truncated, ...rest, results });
  },
});
