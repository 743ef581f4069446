/**
 * The JSON of /sdcard/ listings (the whatwatt Go's DirectoryListing), declared once: the route
 * answers it and the Files page of the web interface reads it (a type-only import).
 */

export interface DirectoryEntry {
  /** Directories end in '/', as on the whatwatt Go. */
  name: string;
  /** Bytes; 0 for a directory. */
  size: number;
  type: 'file' | 'dir';
  /** Last modification (ISO 8601 UTC), for the Files page. */
  modified: string;
}

export interface DirectoryListing {
  /** The listed directory relative to the SD card folder: '/', '/archive/'. */
  path: string;
  files: DirectoryEntry[];
}
