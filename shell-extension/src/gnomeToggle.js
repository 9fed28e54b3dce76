// SPDX-License-Identifier: GPL-3.0-or-later
// GNOME's own power-profile toggle ("Power Mode"), extended while Pacer's extension is
// enabled, so that Quick Settings has one power toggle that tells the truth: its menu gains
// Pacer's part (menu.js) below GNOME's profiles, and while a warning is on (the EPP the
// hardware has is not the one the profile sets) its subtitle says so and its icon carries
// the warning badge. GNOME's toggle keeps everything else: its title, its click (the profile
// daemon switches), its profiles. Disabled, the toggle is as GNOME made it.
//
// GNOME redraws its toggle in its `_sync()` at each change of the daemon; the instance's own
// `_sync` runs GNOME's, then puts the warning back. Removing that own property restores it.
//
// Written as an ES module; the build (build.py) turns it into a legacy module for 43 and 44.

import {hasSubtitles, addSubtitleLine, removeSubtitleLine, toggleLabels} from './widgets.js';

export class GnomePowerToggle {
    /**
     * GNOME's power-profile toggle, where the shell has one.
     *
     * @param {object} shell the Shell's modules and `version`
     * @returns {?object} the toggle
     */
    static find(shell) {
        const indicator = shell.Main.panel.statusArea.quickSettings._powerProfiles;
        const toggle = indicator && indicator.quickSettingsItems
            ? indicator.quickSettingsItems[0] : null;
        return toggle && typeof toggle._sync === 'function' ? toggle : null;
    }

    /**
     * @param {object} shell the Shell's modules and `version`
     * @param {object} toggle what `find` found
     * @param {Function} visibilityChanged called when GNOME shows or hides its toggle (it
     *   hides it while no profile daemon is on the bus)
     */
    constructor(shell, toggle, visibilityChanged) {
        this._shell = shell;
        this.toggle = toggle;
        this._warning = null;
        // What the extension last put on the toggle (`show`), empty for nothing.
        this._shown = '';
        // Whether the icon shows Pacer's warning badge.
        this._badged = false;
        // 43's toggles have no subtitle: the warning gets a line of its own.
        this._subtitle43 = hasSubtitles(shell) ? null : addSubtitleLine(shell, toggle);
        const gnomeSync = Object.getPrototypeOf(toggle)._sync;
        const extension = this;
        toggle._sync = function () {
            gnomeSync.call(this);
            extension._decorate();
        };
        this._visibility = toggle.connect('notify::visible', () => visibilityChanged());
    }

    destroy() {
        const toggle = this.toggle;
        toggle.disconnect(this._visibility);
        delete toggle._sync;
        this._unbadge();
        if (this._subtitle43)
            removeSubtitleLine(toggle, this._subtitle43);
        toggle._sync();
        this.toggle = null;
    }

    get visible() {
        return this.toggle.visible;
    }

    /** @returns {object[]} the labels of its title and subtitle */
    get labels() {
        return toggleLabels(this.toggle, this._subtitle43);
    }

    /**
     * Shows Pacer's view: the warning, or GNOME's own words.
     *
     * @param {object} view what state.js worked out
     * @param {object} warningIcon the Gio.Icon of the profile with the warning badge
     */
    show(view, warningIcon) {
        // Pacer's state changes every second while its frequencies are watched; GNOME's
        // toggle is redrawn only when what the extension puts on it changes (GNOME's _sync
        // also writes a setting each time).
        const shown = view.warning ? `${view.warningBrief}|${view.iconName}` : '';
        if (shown === this._shown)
            return;
        this._shown = shown;
        this._warning = view.warning ? {brief: view.warningBrief, icon: warningIcon} : null;
        this.toggle._sync();
    }

    _decorate() {
        const toggle = this.toggle;
        if (!toggle.visible)
            return;
        const brief = this._warning ? this._warning.brief : '';
        if (this._subtitle43)
            this._subtitle43.set({text: brief, visible: brief !== ''});
        else if (brief !== '')
            toggle.subtitle = brief;
        if (this._warning) {
            toggle.gicon = this._warning.icon;
            this._badged = true;
        } else {
            this._unbadge();
        }
    }

    // GNOME sets its icon by name, and sets the same name again while the badge shows,
    // which reaches no icon: the name is set anew, through every binding down to the icon.
    _unbadge() {
        if (!this._badged)
            return;
        this._badged = false;
        const toggle = this.toggle;
        const name = toggle.icon_name;
        toggle.gicon = null;
        toggle.icon_name = null;
        toggle.icon_name = name;
    }
}
