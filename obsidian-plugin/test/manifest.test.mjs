// The manifest's minAppVersion covers every Obsidian API the plugin calls: each `@since` in the official typings
// (npm `obsidian`) of a member the plugin's sources use must be at most minAppVersion, or Obsidian versions it claims
// to support would throw where the plugin calls a member they lack. versions.json (plugin version → minimum Obsidian
// version, read by Obsidian's community directory) must agree with the manifest.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const manifest = JSON.parse(fs.readFileSync(path.join(root, "manifest.json"), "utf8"));

/** "1.6.6" → [1, 6, 6], compared part by part. */
const parts = (version) => version.split(".").map(Number);
const newer = (a, b) => {
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
  }
  return false;
};

/** For each member name declared in the typings with an `@since`, the oldest version that has one of that name. */
function sinceByName() {
  const typings = fs.readFileSync(path.join(root, "node_modules/obsidian/obsidian.d.ts"), "utf8").split("\n");
  const since = new Map();
  let pending = null;
  for (const line of typings) {
    const tag = /@since (\d+\.\d+\.\d+)/.exec(line);
    if (tag) {
      pending = tag[1];
      continue;
    }
    if (/^\s*(\*|\/\*\*)/.test(line)) continue;
    const declared = /^\s*(?:export\s+)?(?:static\s+)?(?:readonly\s+)?(?:abstract\s+)?(?:class|interface|function|const|let)?\s*([A-Za-z_$][\w$]*)\s*[(<:?]/.exec(line);
    if (declared) {
      // A declaration without `@since` is older than the tags (they start at 0.x).
      const version = pending ?? "0.0.0";
      const known = since.get(declared[1]);
      // A name declared on several classes counts with its oldest version: the check must never blame a use of the
      // old one. Members the plugin uses that are new everywhere still stand out.
      if (known === undefined || newer(known, version)) since.set(declared[1], version);
    }
    pending = null;
  }
  return since;
}

/** The Obsidian API members and classes the plugin's TypeScript sources name. */
function namesUsed() {
  const names = new Set();
  const visit = (folder) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.name.endsWith(".ts")) {
        const text = fs.readFileSync(full, "utf8");
        // Members called on Obsidian's objects (the app's parts, the editor, settings widgets and elements).
        const receiver = /\b(?:vault|metadataCache|fileManager|workspace|editor|adapter|[a-z]+El|toggle|button|area|Setting\([^)]*\))\s*\.\s*([A-Za-z_$][\w$]*)/g;
        for (const match of text.matchAll(receiver)) names.add(match[1]);
        for (const match of text.matchAll(/\)\s*\.\s*((?:add|set)[A-Z][\w$]*)\(/g)) names.add(match[1]);
        for (const match of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*"obsidian"/g)) {
          for (const name of match[1].split(",")) names.add(name.replace(/\btype\b/, "").trim());
        }
        for (const match of text.matchAll(/\boverride\s+(?:async\s+)?([A-Za-z_$][\w$]*)\s*\(/g)) names.add(match[1]);
      }
    }
  };
  visit(path.join(root, "src"));
  return names;
}

test("minAppVersion covers the @since of every Obsidian API member the plugin uses", () => {
  const since = sinceByName();
  const tooNew = [...namesUsed()]
    .filter((name) => since.has(name) && newer(since.get(name), manifest.minAppVersion))
    .map((name) => `${name} (@since ${since.get(name)})`);
  assert.deepEqual(tooNew, [], `minAppVersion ${manifest.minAppVersion} is older than what the plugin calls`);
  // The check can fail: the newest member the plugin uses is exactly what minAppVersion says.
  const newest = [...namesUsed()].filter((name) => since.has(name)).map((name) => since.get(name));
  assert.ok(newest.some((version) => version === manifest.minAppVersion), "minAppVersion is no older than needed");
});

test("versions.json maps this plugin version to the manifest's minAppVersion", () => {
  const versions = JSON.parse(fs.readFileSync(path.join(root, "versions.json"), "utf8"));
  assert.equal(versions[manifest.version], manifest.minAppVersion);
});
