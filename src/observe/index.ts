/** The public face of src/observe: what other modules may import from it. */
export { ObserveModule } from './observe.module';
