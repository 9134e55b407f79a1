/** The public face of src/config: what other modules may import from it. */
export { AppConfig, ConfigError, loadConfig, trustProxySetting } from './app-config';
export { ConfigModule } from './config.module';
