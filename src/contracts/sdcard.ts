import Type, { type Static } from 'typebox';

/** The JSON of /sdcard/ listings (the whatwatt Go's DirectoryListing and DirectoryEntry). */

export const DirectoryEntrySchema = Type.Object({
  name: Type.String({ description: "directories end in '/', as on the whatwatt Go" }),
  size: Type.Integer({ minimum: 0, description: 'bytes; 0 for a directory' }),
  type: Type.Enum(['file', 'dir']),
  modified: Type.String({ format: 'date-time', description: 'last modification (ISO 8601 UTC)' }),
});
export type DirectoryEntry = Static<typeof DirectoryEntrySchema>;

export const DirectoryListingSchema = Type.Object({
  path: Type.String({ description: "the listed directory relative to the SD card folder: '/', '/archive/'" }),
  files: Type.Array(DirectoryEntrySchema),
});
export type DirectoryListing = Static<typeof DirectoryListingSchema>;
