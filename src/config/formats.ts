import convict from 'convict';
import { describeIssues, validateLayout } from '../modbus/layout-validate.js';

/**
 * Strict convict formats: a value of the wrong JSON type is an error, never silently coerced
 * (convict's built-in int/port formats parseInt strings, which would accept "30.5" as 30). The
 * rule text is what a user sees: "<key>: <rule>: value was <value>".
 * Limits live on the schema item (min, max, maxLength, step, values) so the table in schema.ts
 * reads like the constraint column of the device's API documentation.
 */
interface Limits {
  min?: number;
  max?: number;
  step?: number;
  maxLength?: number;
  minLength?: number;
  values?: readonly string[];
  pattern?: RegExp;
  patternText?: string;
}

function range(limits: Limits): string {
  return `${limits.min ?? '-inf'}..${limits.max ?? 'inf'}`;
}

let registered = false;

export function registerFormats(): void {
  if (registered) return;
  registered = true;
  convict.addFormat({
    name: 'bounded-int',
    validate(value: unknown, schemaItem: convict.SchemaObj) {
      const schema = schemaItem as unknown as Limits;
      if (typeof value !== 'number' || !Number.isInteger(value)) {
        throw new Error(`must be an integer in ${range(schema)}`);
      }
      if (
        (schema.min !== undefined && value < schema.min) ||
        (schema.max !== undefined && value > schema.max)
      ) {
        throw new Error(`must be an integer in ${range(schema)}`);
      }
    },
  });
  convict.addFormat({
    name: 'bounded-number',
    validate(value: unknown, schemaItem: convict.SchemaObj) {
      const schema = schemaItem as unknown as Limits;
      const rule = `must be a number in ${range(schema)}${schema.step ? ` in steps of ${schema.step}` : ''}`;
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(rule);
      if (
        (schema.min !== undefined && value < schema.min) ||
        (schema.max !== undefined && value > schema.max)
      ) {
        throw new Error(rule);
      }
      if (schema.step && Math.abs(value / schema.step - Math.round(value / schema.step)) > 1e-9) {
        throw new Error(rule);
      }
    },
  });
  convict.addFormat({
    name: 'bool',
    validate(value: unknown) {
      if (typeof value !== 'boolean') throw new Error('must be true or false');
    },
  });
  convict.addFormat({
    name: 'text',
    validate(value: unknown, schemaItem: convict.SchemaObj) {
      const schema = schemaItem as unknown as Limits;
      const max = schema.maxLength;
      const lengthRule =
        schema.minLength !== undefined && max !== undefined
          ? ` of ${schema.minLength}..${max} characters`
          : max !== undefined
            ? ` of at most ${max} characters`
            : '';
      if (typeof value !== 'string') throw new Error(`must be a string${lengthRule}`);
      if (max !== undefined && [...value].length > max) throw new Error(`must be a string${lengthRule}`);
      if (schema.minLength !== undefined && value.length > 0 && value.length < schema.minLength) {
        throw new Error(`must be a string${lengthRule}`);
      }
      if (schema.pattern && value !== '' && !schema.pattern.test(value)) {
        throw new Error(`must be ${schema.patternText ?? `a string matching ${schema.pattern}`}`);
      }
    },
  });
  convict.addFormat({
    name: 'modbus-layout',
    validate(value: unknown) {
      // The full register-set rules of src/modbus, so a layout from a file or the environment is
      // held to the same rules as one posted to /api/v1/modbus.
      if (value === null) return;
      const result = validateLayout(value);
      if (!result.ok)
        throw new Error(`must be null or a valid Modbus layout: ${describeIssues(result.issues)}`);
    },
  });
  convict.addFormat({
    name: 'one-of',
    validate(value: unknown, schemaItem: convict.SchemaObj) {
      const schema = schemaItem as unknown as Limits;
      if (typeof value !== 'string' || !schema.values?.includes(value)) {
        throw new Error(`must be one of ${schema.values?.join(', ')}`);
      }
    },
  });
}
