-- Auto-titles: a conversation created without a title gets one from the model after its first
-- completed exchange, unless the user sets one first. The flag, rather than comparing with the
-- default text, tells a title the user chose (even "New conversation") from the default.
ALTER TABLE "conversations" ADD COLUMN "needs_title" BOOLEAN NOT NULL DEFAULT false;

-- conversations that still carry the default are titled after their next completed exchange
UPDATE "conversations" SET "needs_title" = true WHERE "title" = 'New conversation';
