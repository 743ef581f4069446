import type { JsonSchema } from './router.js';

/**
 * JSON Schemas of the Ethernet and SD-card endpoints and of the `ethernet` and `sd_card` objects
 * of /api/v1/system, following the whatwatt Go's OpenAPI document (EthernetSettings,
 * DirectoryListing, DirectoryEntry).
 */
const string: JsonSchema = { type: 'string' };
const boolean: JsonSchema = { type: 'boolean' };

export const ETHERNET_SETTINGS_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['enable', 'static_ip', 'ip', 'netmask', 'gateway', 'dns'],
  properties: {
    enable: boolean,
    static_ip: boolean,
    ip: string,
    netmask: string,
    gateway: string,
    dns: string,
  },
};

export const ETHERNET_INFO_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['mac', 'status', 'ip', 'mask', 'gateway', 'dns'],
  additionalProperties: false,
  properties: {
    mac: string,
    status: { type: 'string', enum: ['Up', 'Down'] },
    ip: string,
    mask: string,
    gateway: string,
    dns: string,
  },
};

export const SD_CARD_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['installed', 'type', 'size', 'speed'],
  additionalProperties: false,
  properties: {
    installed: boolean,
    type: string,
    size: { type: 'integer', minimum: 0 },
    speed: { type: 'integer', minimum: 0 },
  },
};

export const DIRECTORY_LISTING_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['path', 'files'],
  properties: {
    path: string,
    files: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'size', 'type'],
        properties: {
          name: string,
          size: { type: 'integer', minimum: 0 },
          type: { type: 'string', enum: ['file', 'dir'] },
          modified: { type: 'string', format: 'date-time' },
        },
      },
    },
  },
};
