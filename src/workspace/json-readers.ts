/** Readers of values in stored settings JSON: the value when it has the right type, else undefined. */

export const oneOf = <T extends string>(values: readonly T[], value: unknown): T | undefined =>
  values.find((candidate) => candidate === value);
export const positiveInt = (value: unknown): number | undefined => (Number.isInteger(value) && Number(value) > 0 ? Number(value) : undefined);
export const positiveNumber = (value: unknown): number | undefined => (typeof value === 'number' && value >= 0 && Number.isFinite(value) ? value : undefined);
