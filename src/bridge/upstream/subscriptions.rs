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
use crate::sync::lock;

/// How long one subscribe or unsubscribe may take on the upstream.
const SUBSCRIBE_TIMEOUT: Duration = Duration::from_secs(5);

impl Upstream {
    /// The URIs some client subscribed to, from now on: applied to the current session at once, and to every
    /// session that opens later.
    pub(crate) fn set_subscriptions(self: &Arc<Self>, uris: BTreeSet<String>) {
        let before = std::mem::replace(&mut *lock(&self.subscriptions), uris.clone());
        if before == uris {
            return;
        }
        let Some(session) = lock(&self.current).clone() else {
            return;
        };
        let upstream = Arc::clone(self);
        tokio::spawn(async move { upstream.apply_subscriptions(&session, &before, &uris).await });
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
        let uris = lock(&self.subscriptions).clone();
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
