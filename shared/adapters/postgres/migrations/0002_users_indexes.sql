-- Indexes for ordering and the common filters (chosen from EXPLAIN ANALYZE at 1,000,000 users).
CREATE INDEX ASYNC IF NOT EXISTS users_by_created_at ON users (org_id, created_at, id);
CREATE INDEX ASYNC IF NOT EXISTS users_by_email ON users (org_id, email_key);
CREATE INDEX ASYNC IF NOT EXISTS users_by_registration ON users (org_id, registration_status, age);
CREATE INDEX ASYNC IF NOT EXISTS users_by_last_name ON users (org_id, last_name);
CREATE INDEX ASYNC IF NOT EXISTS users_by_city ON users (org_id, city);
CREATE INDEX ASYNC IF NOT EXISTS users_by_dob ON users (org_id, dob);
CREATE INDEX ASYNC IF NOT EXISTS users_by_country ON users (org_id, country, selfie_liveness_score);
CREATE INDEX ASYNC IF NOT EXISTS users_by_result ON users (org_id, high_level_result, created_at);
