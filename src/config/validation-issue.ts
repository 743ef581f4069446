/** One violated rule: the key, the rule, and the value (omitted for secrets). */
export interface ValidationIssue {
  field: string;
  message: string;
  /** The rule's message key and arguments, where it has them (docs/architecture.md#server-message-keys). */
  key?: string;
  args?: Record<string, string | number>;
  value?: unknown;
  /** The format owner's own wording of the whole problem, used by start-up errors. */
  summary?: string;
  /** The path is locked by the Home Assistant add-on's options (docs/architecture.md#add-on-options). */
  locked?: true;
}
