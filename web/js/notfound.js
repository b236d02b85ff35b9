// The page for an unknown address: its words in the page's language.
import { translatePage } from "./i18n.js";

translatePage();
