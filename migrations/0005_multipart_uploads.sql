-- Parts already stored for a multipart upload (JSON array of {part_number, etag}), so a phone that lost
-- its connection resumes at the first missing part.
ALTER TABLE files ADD COLUMN uploaded_parts TEXT;
