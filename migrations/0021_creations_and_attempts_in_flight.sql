-- Issue 31 (ADR 0046): claimed; the tables follow in the next commit.
SELECT 1;
