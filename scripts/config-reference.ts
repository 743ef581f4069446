// Regenerates the configuration reference table (docs/guide/configuration-reference.md) from the convict schema.
import { readFileSync, writeFileSync } from 'node:fs';
import { withConfigReference } from '../src/config/reference.js';
import { registerConfigFormats } from '../src/config-formats.js';

registerConfigFormats();

const path = new URL('../../docs/guide/configuration-reference.md', import.meta.url);
writeFileSync(path, withConfigReference(readFileSync(path, 'utf8')));
