//! Resource subscriptions kept on every upstream session: the bridge's clients subscribe to URIs (a 2025 client with
//! `resources/subscribe`, a 2026 one in its `subscriptions/listen` filter), and the union goes to the upstream in its
//! own era. A 2025 session gets `resources/subscribe` / `unsubscribe` for what changed, and every subscription again
//! when a new session opens; a 2026-07-28 session over HTTP gets one `subscriptions/listen` stream of its own (list
//! changes of tools, resources and prompts, and the URIs), opened again with the new filter when the URIs change.
//! (A 2026 server run as a child process is not listened to: it tells the bridge nothing between requests.)

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use super::Upstream;
use super::link::Link;
use super::session::Session;
use crate::lock::lock;

/// How long one subscribe or unsubscribe may take on the upstream.
const SUBSCRIBE_TIMEOUT: Duration = Duration::from_secs(5);

/// What the bridge's clients subscribed to, and what the current session was last brought to. A change costs the
/// one URI it names: a single worker brings the session up to date, once for a whole burst of changes (3,000
/// subscribes in a row each spawned a task holding two copies of every URI, and took the bridge past 500 MiB).
#[derive(Default)]
pub(super) struct Subscriptions {
    /// The URIs of the 2025 client's `resources/subscribe`.
    direct: BTreeSet<String>,
    /// The URIs named by the 2026 clients' `subscriptions/listen` filters.
    listened: BTreeSet<String>,
    /// What the current session was brought to last.
    pushed: BTreeSet<String>,
    /// Whether a worker is bringing the session up to date; it goes round again while changes keep coming.
    working: bool,
    /// Counts the changes, so the worker knows whether one came while it worked.
    changes: u64,
}

impl Subscriptions {
    fn wanted(&self) -> BTreeSet<String> {
        self.direct.union(&self.listened).cloned().collect()
    }
}

impl Upstream {
    /// A 2025 client's `resources/subscribe` (`on`) or `unsubscribe` of `uri`, applied to the current session soon
    /// and to every session that opens later.
    pub(crate) fn subscribe(self: &Arc<Self>, uri: &str, on: bool) {
        let mut subscriptions = lock(&self.subscriptions);
        let changed = if on {
            !subscriptions.direct.contains(uri) && subscriptions.direct.insert(uri.to_string())
        } else {
            subscriptions.direct.remove(uri)
        };
        if changed {
            self.subscriptions_changed(&mut subscriptions);
        }
    }

    /// Whether the 2025 client subscribed to `uri`.
    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        lock(&self.subscriptions).direct.contains(uri)
    }

    /// The URIs the 2026 clients' listen streams name, from now on.
    pub(crate) fn set_listened(self: &Arc<Self>, uris: BTreeSet<String>) {
        let mut subscriptions = lock(&self.subscriptions);
        if subscriptions.listened != uris {
            subscriptions.listened = uris;
            self.subscriptions_changed(&mut subscriptions);
        }
    }

    /// Counts a change and starts the worker unless it runs.
    fn subscriptions_changed(self: &Arc<Self>, subscriptions: &mut Subscriptions) {
        subscriptions.changes += 1;
        if subscriptions.working {
            return;
        }
        subscriptions.working = true;
        let upstream = Arc::clone(self);
        tokio::spawn(async move { upstream.bring_subscriptions_up_to_date().await });
    }

    /// The worker: brings the current session to what is wanted, and again while changes came meanwhile.
    async fn bring_subscriptions_up_to_date(&self) {
        loop {
            let (before, after, seen) = {
                let mut subscriptions = lock(&self.subscriptions);
                let after = subscriptions.wanted();
                let before = std::mem::replace(&mut subscriptions.pushed, after.clone());
                (before, after, subscriptions.changes)
            };
            let session = lock(&self.current).clone();
            if let Some(session) = session
                && before != after
            {
                self.apply_subscriptions(&session, &before, &after).await;
            }
            let mut subscriptions = lock(&self.subscriptions);
            if subscriptions.changes == seen {
                subscriptions.working = false;
                return;
            }
        }
    }

    /// Brings a session from the subscriptions `before` to `after`.
    async fn apply_subscriptions(
        &self,
        session: &Session,
        before: &BTreeSet<String>,
        after: &BTreeSet<String>,
    ) {
        if session.is_stateless() {
            if let Link::Http(link) = session.link.as_ref() {
                link.set_listen_uris(after.iter().cloned().collect());
                link.open_event_stream().await;
            }
            return;
        }
        for (method, uris) in [
            ("resources/subscribe", after.difference(before)),
            ("resources/unsubscribe", before.difference(after)),
        ] {
            for uri in uris {
                if let Err(error) = self
                    .request_on(
                        session,
                        method,
                        Some(json!({ "uri": uri })),
                        SUBSCRIBE_TIMEOUT,
                    )
                    .await
                {
                    tracing::debug!("{method} {uri} upstream: {error}");
                }
            }
        }
    }

    /// A session just opened: it gets every subscription there is (a stateless one through its listen stream, which
    /// the caller opens next).
    pub(super) async fn resubscribe(&self, session: &Session) {
        let uris = {
            let mut subscriptions = lock(&self.subscriptions);
            subscriptions.pushed = subscriptions.wanted();
            subscriptions.pushed.clone()
        };
        if session.is_stateless() {
            if let Link::Http(link) = session.link.as_ref() {
                link.set_listen_uris(uris.into_iter().collect());
            }
            return;
        }
        self.apply_subscriptions(session, &BTreeSet::new(), &uris)
            .await;
    }
}
