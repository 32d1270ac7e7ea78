-- Country with both scores, so a count of a country and score ranges reads the index alone.
-- The narrower index is dropped only once its replacement is built.
CREATE INDEX ASYNC IF NOT EXISTS users_by_country_scores ON users (org_id, country, selfie_liveness_score, fmc_score);
DROP INDEX IF EXISTS users_by_country;
