/** The public face of src/openai: what other modules may import from it. */
export { OpenAiModule } from './openai.module';
