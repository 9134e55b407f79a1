import { ValidateBy, type ValidationOptions } from 'class-validator';
import { isStorableText } from './storable-text';

/**
 * The string (or, with `{ each: true }`, every string of the array) is text PostgreSQL can store:
 * no NUL and no unpaired UTF-16 surrogate (see storable-text.ts). A client's text that fails is
 * answered with a 400 naming the field here, at the edge, instead of failing later in a write
 * that other requests share. Values that are not strings pass: `@IsString()` judges those.
 */
export function IsStorableText(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isStorableText',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || isStorableText(value),
        defaultMessage: () => '$property must not contain NUL characters or unpaired UTF-16 surrogates',
      },
    },
    options,
  );
}
