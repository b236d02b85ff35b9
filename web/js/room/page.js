// The table page's shared state, in one object: the room's state as the server last sent it
// and what this page keeps between views (the connection, your choices, what is on screen).
// Every module of the page (web/js/room/) reads and writes it here, and draws from it.
import { canonicalCode, roomUrl } from "../api.js";
import { tableAlerts } from "../attention.js";
import { descriptor } from "../games.js";
import { t, translatePage } from "../i18n.js";

translatePage();

export const code = canonicalCode(decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || ""));
export const alerts = tableAlerts(code); // your turn, a start, your name: told while you look elsewhere

export const page = {
  state: null, // the room's state: {room, game (the view), seats, you, me, chat, result...}
  conn: null, // the RoomConnection
  botLevel: "easy", // the level of the next bot the host adds: "easy" or "strong"
  selection: [], // positions in your hand chosen for a move of several cards
  selectionKey: "", // the hand and moves the selection was made for
  pending: false, // an action is on its way: wait for the next version
  wasMyTurn: false, // at the last view (or "over" once the table finished)
  chatSeen: 0, // chat lines drawn
  chatRead: null, // chat lines read (null until the first view: history counts as read)
  chatOpen: false,
  botAsked: new Set(), // seats a bot was asked for that the table has not filled yet
  shownDecision: null, // the decision last brought into view (a new one is brought again)
  held: null, // a finished trick kept on the table: {plays, last, winner, ms, sweepAt, timer}
  lastTrickKey: undefined, // undefined until the first view
  // Arriving to play (a name given in the lobby: the link ends in #sit; or the Join form here):
  // take the first free seat as soon as the table knows who you are.
  sitOnArrival: location.hash === "#sit",
  fitted: 0, // the felt height last set
  keeping: 0, // the frame that brings the decision back into view, once the felt has refit
  spokenSecs: null, // the last count said to screen readers
  moving: false, // this page is on its way to the next table
  heldTimer: null, // the timer that draws again when the seats stop being kept
  bidPick: null, // the bid the stepper shows
  cardWhy: null, // the reason last asked for, kept while the hand and the choices stay the same
  missingShown: false, // the first explanation of a missing table stays
};
if (page.sitOnArrival) history.replaceState(null, "", location.pathname + location.search);

export const room = () => page.state.room;
export const view = () => page.state.game;
export const legal = () => (page.state.game && Array.isArray(page.state.game.legal) ? page.state.game.legal : []);
/** The client descriptor of the table's game: what it draws and asks differently. */
export const game = () => descriptor(room().game);
// Bots are named by the server ("Bot 3"); here they get the page's word for a bot.
export const names = () => page.state.seats.map((s) => (s.bot ? t(s.level === "strong" ? "seat.strongBotName" : "seat.botName", { n: s.seat + 1 }) : s.name || t("seat.n", { n: s.seat + 1 })));
export const inviteUrl = () => `${location.origin}${roomUrl(code)}`;
