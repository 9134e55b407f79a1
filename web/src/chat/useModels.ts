import { useEffect, useState } from 'react';
import { api, ok } from '../api/client';
import type { components } from '../api/openapi';

export type ModelOption = components['schemas']['ModelListResponse']['items'][number];

/** What the workspace may use (GET /api/v1/models); empty until it answers, or if it fails. */
export function useModels(): ModelOption[] {
  const [models, setModels] = useState<ModelOption[]>([]);
  useEffect(() => {
    let cancelled = false;
    ok(api.GET('/api/v1/models'))
      .then((list) => !cancelled && setModels(list.items))
      .catch(() => undefined); // the selector then offers the workspace default only
    return () => {
      cancelled = true;
    };
  }, []);
  return models;
}
