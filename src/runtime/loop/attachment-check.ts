import { BadRequestException } from '@nestjs/common';
import { say } from '../../common';
import { isImageType } from '../../conversation';
import { formatModelRef, type ModelRef, type ModelRouter } from '../../model';

/** The `code` of the 400 for an image posted to a model that cannot see. */
export const ATTACHMENT_UNSUPPORTED = 'attachment_unsupported';

/**
 * An image for a model that cannot see (its config's `vision`, else the catalog's) is refused
 * before anything runs: sending it anyway would fail at the provider, dropping it would answer
 * a question about a picture nobody showed.
 */
export async function refuseUnseenImages(
  router: ModelRouter,
  model: ModelRef,
  attachments: ReadonlyArray<{ name: string; mediaType: string }> | undefined,
  workspaceId: string,
): Promise<void> {
  const image = attachments?.find((file) => isImageType(file.mediaType));
  if (!image) return;
  if ((await router.describe(model, workspaceId)).vision) return;
  throw new BadRequestException({ message: say('attachment.no_vision', { model: formatModelRef(model), name: image.name }), code: ATTACHMENT_UNSUPPORTED });
}
