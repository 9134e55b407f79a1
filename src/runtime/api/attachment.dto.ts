import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, Matches, MaxLength } from 'class-validator';
import { IsStorableText } from '../../common';

/** A file attached to a posted message as a data URL (a multipart body sends files as parts instead). */
export class AttachmentDto {
  @ApiProperty({ minLength: 1, maxLength: 255, example: 'chart.png', description: "the file's name (no path); with a text file its extension picks the kind: .md, .html, .json, .csv, else plain text" })
  @IsString()
  @IsStorableText()
  @IsNotEmpty()
  @MaxLength(255)
  name!: string;

  @ApiProperty({
    example: 'data:image/png;base64,iVBORw0KGgo…',
    description:
      '`data:<media type>;base64,<bytes>`, at most HELIX_MAX_ATTACHMENT_BYTES (default 10 MiB) once decoded. The type is sniffed from ' +
      'the bytes (PNG, JPEG, WebP, GIF, PDF, UTF-8 text); the declared one is not trusted',
  })
  @IsString()
  @Matches(/^data:/i)
  dataUrl!: string;
}
