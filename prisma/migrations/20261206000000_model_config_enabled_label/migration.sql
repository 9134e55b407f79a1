-- Members pick a model from GET /api/v1/models: a config names it for people (`label`), and an
-- admin can switch a model off (`enabled`) without deleting its settings and their history.
ALTER TABLE "model_configs" ADD COLUMN "enabled" BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE "model_configs" ADD COLUMN "label" TEXT;
