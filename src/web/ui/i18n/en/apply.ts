/** English texts of a settings write's outcome beyond saved: still applying (202), not applied (500). */
export const apply = {
  'apply.applying': 'Applying… ({outputs})',
  'apply.not_applied': 'Saved, but not applied by {outputs}: {reasons}',
};
