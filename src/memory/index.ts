/** The public face of src/memory: what other modules may import from it. */
export { AutoTitleService } from './auto-title/auto-title.service';
export { MemoryWindow, WARN_AT } from './memory-window';
export type { BuiltWindow, LatestSummary } from './memory-window';
export type { SummaryMeter } from './summarizer';
export { MemoryModule } from './memory.module';
export { TokenCounter } from './token-counter';
