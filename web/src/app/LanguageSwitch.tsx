import { useI18n, type Language } from '../i18n/i18n';

const NAMES: Record<Language, string> = { en: 'English', zh: '中文' };

export function LanguageSwitch() {
  const { t, language, setLanguage } = useI18n();
  return (
    <label className="language-switch">
      <span>{t('app.language')}</span>
      <select value={language} onChange={(e) => setLanguage(e.target.value as Language)} data-testid="language">
        {(Object.keys(NAMES) as Language[]).map((code) => (
          <option key={code} value={code} lang={code === 'zh' ? 'zh-CN' : 'en'}>
            {NAMES[code]}
          </option>
        ))}
      </select>
    </label>
  );
}
