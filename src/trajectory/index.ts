/** The public face of src/trajectory: what other modules may import from it. */
export { TrajectoryModule } from './trajectory.module';
