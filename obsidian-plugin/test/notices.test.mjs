// Change notices through the real main.js (src/server/changes.ts): a 2025 session subscribed to a note hears
// `resources/updated` when it changes (and nothing for notes it did not subscribe to), every session hears the
// resource and prompt lists change, a burst of changes is one notice, hidden paths make none; a 2026-07-28 client
// hears the same on its `subscriptions/listen` stream, each notice tagged with its subscription.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { connectModern, envelope, openEventStream, routingHeaders } from "./lib/client.mjs";
import { writeSettings } from "./lib/load-plugin.mjs";
import { makeVault, openSession } from "./tools-lib.mjs";

const HUB = "obsidian://vault/Hub.md";
const BETA = "obsidian://vault/Notes/Beta.md";
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The JSON-RPC messages of a stream's events so far. */
const messagesOf = (stream) => stream.events.filter((event) => event.data).map((event) => JSON.parse(event.data));

describe("change notices", () => {
  let vault;
  let session;
  before(async () => {
    vault = makeVault();
    writeSettings(vault.dir, { hiddenPaths: ["Private"] });
    session = await openSession(vault.dir);
  });
  after(async () => {
    await session?.close();
    vault?.remove();
  });

  const waitMethod = (stream, method, extra = () => true) =>
    stream.waitFor((event) => event.data && JSON.parse(event.data).method === method && extra(JSON.parse(event.data)), 5000, method);

  it("a 2025 session hears updates of what it subscribed to and every list change, once per burst", async () => {
    const { client } = session;
    const stream = await openEventStream(session.host.url, client.headers({ accept: "text/event-stream", "content-type": null }));
    try {
      assert.deepEqual(await client.request("resources/subscribe", { uri: HUB }), {});
      const edits = 6;
      await Promise.all(Array.from({ length: edits }, (_, i) => session.ok("append", { path: "Hub", content: `edit ${i}` })));
      await session.ok("append", { path: "Notes/Beta", content: "not subscribed" });
      const updated = await waitMethod(stream, "notifications/resources/updated");
      assert.deepEqual(JSON.parse(updated.data).params, { uri: HUB });
      await sleep(300);
      const updates = messagesOf(stream).filter((message) => message.method === "notifications/resources/updated");
      assert.ok(updates.every((message) => message.params.uri === HUB), "Beta was not subscribed");
      assert.ok(updates.length < edits, `a burst of ${edits} edits is gathered, not one notice each (${updates.length})`);

      await session.ok("create_note", { path: "Fresh", content: "new" });
      await waitMethod(stream, "notifications/resources/list_changed");
      await session.ok("create_note", { path: "Prompts/New prompt", content: "prompt text" });
      await waitMethod(stream, "notifications/prompts/list_changed");

      await client.request("resources/unsubscribe", { uri: HUB });
      const before_ = messagesOf(stream).length;
      await session.ok("create_note", { path: "Private/Secret", content: "hidden" }).catch(() => undefined);
      await session.ok("append", { path: "Hub", content: "three" });
      await sleep(300);
      assert.deepEqual(messagesOf(stream).slice(before_), [], "an unsubscribed note and a hidden path make no notice");
    } finally {
      await stream.close();
    }
  });

  it("a 2026-07-28 client hears them on its subscriptions/listen stream, tagged with its subscription", async () => {
    const client = connectModern(session.host.url, session.host.token);
    const listen = await openEventStream(session.host.url, {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${session.host.token}`,
      ...routingHeaders("subscriptions/listen"),
    }, { method: "POST", body: JSON.stringify({
      jsonrpc: "2.0",
      id: "listen-1",
      method: "subscriptions/listen",
      params: { notifications: { resourcesListChanged: true, promptsListChanged: true, resourceSubscriptions: [BETA] }, _meta: envelope() },
    }) });
    try {
      const acknowledged = await waitMethod(listen, "notifications/subscriptions/acknowledged");
      assert.ok(JSON.parse(acknowledged.data).params.notifications.resourceSubscriptions.includes(BETA), acknowledged.data);
      await client.request("tools/call", { name: "append", arguments: { path: "Notes/Beta", content: "modern" } });
      const updated = await waitMethod(listen, "notifications/resources/updated");
      const message = JSON.parse(updated.data);
      assert.equal(message.params.uri, BETA);
      assert.ok(JSON.stringify(message.params._meta ?? {}).includes("listen-1"), `tagged with its subscription: ${updated.data}`);
      await client.request("tools/call", { name: "create_note", arguments: { path: "Prompts/Modern", content: "x" } });
      await waitMethod(listen, "notifications/resources/list_changed");
      await waitMethod(listen, "notifications/prompts/list_changed");
      const subscribe = await client.raw({
        body: { jsonrpc: "2.0", id: 9, method: "resources/subscribe", params: { uri: HUB, _meta: envelope() } },
        headers: routingHeaders("resources/subscribe", { uri: HUB }),
      });
      const answer = subscribe.messages.find((each) => each.id === 9);
      assert.ok(answer?.error, `a 2026 request cannot use resources/subscribe: ${subscribe.text}`);
    } finally {
      await listen.close();
    }
  });
});
