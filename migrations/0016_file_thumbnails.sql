-- Each sealed photo's light thumbnail (issue 13, docs/adr/0021): made by the sealer from the signed bytes
-- at sealing, stored in R2 beside the signed copy, served by GET /v1/public/proofs/{id}/files/{file_id}/thumbnail.
-- JSON { key, content_type, width, height, size }; NULL: none (a video, HEIC, or sealed before this migration).
ALTER TABLE files ADD COLUMN thumbnail TEXT;
