-- A proof is only ever created by the completion of its capture session, in the same batch that marks
-- the session completed with that proof. If the expiry sweep expired the session a moment before (a
-- completion that passed its checks just before `expires_at`), the session update changes nothing and
-- this trigger aborts the whole batch: no proof, no event, for a session that is expired.
CREATE TRIGGER proof_needs_its_completion BEFORE INSERT ON proofs
WHEN NOT EXISTS (SELECT 1 FROM capture_sessions WHERE id = NEW.session_id AND status = 'completed' AND proof_id = NEW.id)
BEGIN
  SELECT RAISE(ABORT, 'a proof needs its capture session completed with it');
END;
