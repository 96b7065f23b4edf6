-- Indexes for the minute sweeps (issue 15), so each run reads only the rows it may act on instead of
-- scanning whole tables that grow for years.

-- resume-stalled-sealing: pending proofs, oldest touch first.
CREATE INDEX proofs_pending ON proofs (updated_at) WHERE status = 'pending';

-- requeue-stuck-deliveries: deliveries still to be attempted, by when they fall due (a new delivery has no
-- next_attempt_at yet: it is due from its creation). The sweep queries this exact expression.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (COALESCE(next_attempt_at, created_at)) WHERE status IN ('pending', 'retrying');
