import type { AppContext } from '../../src/context.js';
import { registerHomewizardRoutes } from '../../src/http/routes/homewizard.js';
import { homewizardAnswers } from '../../src/http/routes/homewizard-answers.js';
import { HomewizardServer } from '../../src/http/routes/homewizard-server.js';
import type { Router } from '../../src/http/router.js';
import { runOutput } from '../../src/output-runner.js';
import type { Service } from '../../src/service.js';

/**
 * The HomeWizard personality as the daemon runs it: its routes on the API's port, and its output
 * run by the runner, which hands it the configured meter's store (docs/architecture.md#output-contract).
 * The first apply has run once the test's HTTP server listens (it needs no I/O while the
 * personality has no port of its own); the returned service stops it.
 */
export function registerHomewizardPersonality(router: Router, ctx: AppContext): Service {
  const answers = homewizardAnswers(ctx);
  registerHomewizardRoutes(router, ctx, answers);
  const running = runOutput(ctx, new HomewizardServer(answers, ctx.logger));
  void running.start();
  return running;
}
