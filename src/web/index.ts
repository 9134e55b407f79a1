/** The public face of src/web: what other modules may import from it. */
export { webApp, webAppDir } from './web-app';
