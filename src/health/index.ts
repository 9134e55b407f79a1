/** The public face of src/health: what other modules may import from it. */
export { HealthModule } from './health.module';
