-- Message parts become a discriminated union on "kind" (src/conversation/message-parts.ts).
-- Rows written before it get their kind from their role and fields; nothing else changes.
UPDATE "messages" SET "parts" = jsonb_set("parts", '{kind}', to_jsonb(
  CASE
    WHEN "role" = 'tool' THEN 'tool_result'
    WHEN "role" <> 'assistant' THEN 'user'
    WHEN "parts" ->> 'partial' = 'true' THEN 'partial'
    WHEN jsonb_typeof("parts" -> 'error') = 'string' THEN 'failure'
    ELSE 'answer'
  END))
WHERE NOT ("parts" ? 'kind');
UPDATE "messages" SET "parts" = "parts" - 'partial' WHERE "parts" ->> 'kind' = 'partial';
