// Tells the server the browser's time zone (a cookie), so pages can show times in it; without
// JavaScript the member's setting, else UTC, applies.
const SCRIPT = `try{var z=Intl.DateTimeFormat().resolvedOptions().timeZone;var c="agentdraft-tz="+encodeURIComponent(z);if(z&&document.cookie.split("; ").indexOf(c)<0)document.cookie=c+";path=/;max-age=31536000;samesite=lax"}catch(e){}`;

export function TimeZoneScript() {
  return <script dangerouslySetInnerHTML={{ __html: SCRIPT }} />;
}
