-- Events and webhook deliveries archived to R2 after 30 days (ADR 0067): number claimed; body follows.
SELECT 1;
