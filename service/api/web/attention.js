// Telling a person it is their turn wherever they are: the tab's title and icon say it
// ("(1) Your turn — Claim"), a short sound if they asked for one, and a browser
// notification when the page is in the background and they allowed it (asked only
// when they press the button, never on load).
import { h } from "./dom.js";
import { pushControl, pushSupported } from "./push.js";
import { keepSound, player, soundOn } from "./store.js";

const ICON = (dot) => `data:image/svg+xml,${encodeURIComponent(
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="6" y="2" width="20" height="28" rx="3" fill="#fffdf8" stroke="#1d232a" stroke-width="2"/><path d="M16 8 L23 16 L16 24 L9 16 Z" fill="#1f5fa8"/>${
    dot ? '<circle cx="24" cy="8" r="7" fill="#c62828" stroke="#fff" stroke-width="2"/>' : ""}</svg>`)}`;

function setIcon(dot) {
  const link = document.querySelector("link[rel=icon]");
  link.href = ICON(dot);
  link.dataset.turn = dot ? "yours" : "";
}

// The title and icon of the tab: `turns` games wait for you (0: none); `what` names the page.
export function showTurns(turns, what) {
  document.title = `${turns ? `(${turns}) Your turn — ` : what ? `${what} — ` : ""}Claim`;
  setIcon(turns > 0);
}

let audio = null;
function beep() {
  try {
    audio ??= new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 660;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.35);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.35);
  } catch { /* no sound here: the title still says it */ }
}

// It has just become your turn: sound and notification as the person chose.
export function yourTurnNow(text, gameId) {
  if (soundOn()) beep();
  if (document.hidden && "Notification" in window && Notification.permission === "granted") {
    const note = new Notification("Your turn — Claim", { body: text, tag: `claim-${gameId}` });
    note.onclick = () => { window.focus(); note.close(); };
  }
}

// The settings a person may change at the table: sound, notifications (a registered
// player's by push, which reach the closed page too; a guest's while the page is open).
export function attentionControls() {
  const sound = h("input", { type: "checkbox", id: "sound", checked: soundOn() });
  sound.addEventListener("change", () => { keepSound(sound.checked); if (sound.checked) beep(); });
  const controls = [h("label", { class: "inline" }, sound, " Sound on my turn")];
  const me = player();
  if (me && pushSupported()) controls.push(pushControl(me));  // it asks the permission itself
  else if (!("Notification" in window)) controls.push(h("span", { class: "muted" }, " This browser shows no notifications."));
  else if (Notification.permission === "denied") controls.push(h("span", { class: "muted" }, " Notifications are blocked for this site in the browser's settings."));
  else {
    const state = h("span", { class: "muted" }, Notification.permission === "granted" ? " Notifications are on." : "");
    const ask = Notification.permission === "granted" ? null : h("button", { type: "button", onclick: async () => {
      const answer = await Notification.requestPermission();
      state.textContent = answer === "granted" ? " Notifications are on." : " Notifications were not allowed.";
      ask.remove();
    } }, "Notify me when it is my turn");
    controls.push(ask, state);
  }
  return h("div", { class: "row attention" }, controls);
}
