-- filters.search: user_name_words (word starts by key range), and the e-mail index widened so an
-- e-mail start is read from it alone. The words of users stored before are backfilled after these
-- statements (user-name-words.ts backfillNameWords).
CREATE TABLE IF NOT EXISTS user_name_words (
  org_id text NOT NULL,
  user_id text NOT NULL,
  word text NOT NULL,
  created_at text NOT NULL,
  PRIMARY KEY (org_id, user_id, word)
);
CREATE INDEX ASYNC IF NOT EXISTS user_name_words_by_prefix ON user_name_words (org_id, word, created_at, user_id);
CREATE INDEX ASYNC IF NOT EXISTS users_by_email_prefix ON users (org_id, email_key, created_at, id);
DROP INDEX IF EXISTS users_by_email;
