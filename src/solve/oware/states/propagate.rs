//! The propagation of a threshold across ranks: each rank propagates its
//! share, queueing notices for other ranks in its [`Outbox`], and the ranks
//! exchange them in rounds.

use super::outbox::Outbox;
use super::{Exits, NoticeSink, States};
use crate::distributed::Transport;
use crate::solve::Progress;

/// Propagates threshold `t` to the end on every rank: each propagates its
/// share until it has no pending position left (or a full outbox), then all
/// exchange their notices and apply those received, until a round in which
/// no rank sent any.
pub fn propagate_threshold<X: Exits + ?Sized, T: Transport>(
    states: &States,
    exits: &X,
    t: i8,
    progress: Progress,
    outbox: &mut Outbox,
    transport: &T,
) {
    states.mark_all_dirty();
    loop {
        while states.propagate(exits, t, progress, outbox) > 0 && !outbox.is_full() {}
        if transport.ranks() == 1 {
            return;
        }
        let (outgoing, count) = outbox.take();
        // Nobody sent: nobody has a position left pending (a rank with
        // work left has a full outbox).
        if transport.sum(count as u64) == 0 {
            return;
        }
        let incoming = transport.exchange(&outgoing);
        states.receive(exits, &incoming, t);
    }
}
