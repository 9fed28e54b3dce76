// SPDX-License-Identifier: GPL-3.0-or-later
// Pacer's part of a power toggle's menu: the profiles (in Pacer's own toggle only: GNOME's
// lists them itself), the EPP and governor per core type in words with their frequencies,
// what holds a core type back where the user did not choose it (the firmware, the platform,
// cooling, a power limit), the daemon's notes, the findings in one line each with their Fix
// (a click on one opens Pacer's window), Measure Ramp-Up and Open Pacer; Start Pacer alone
// while Pacer does not run.
//
// Written as an ES module; the build (build.py) turns it into a legacy module for 43 and 44.

import {widgetClasses} from './widgets.js';

export class PacerMenuSection {
    /**
     * @param {object} shell the Shell's modules and `version`
     * @param {object} menu the toggle's menu
     * @param {number} position where in the menu Pacer's part goes
     * @param {object} options `withProfiles` (whether to list the profiles), `_` (gettext),
     *   `call(method, args)` (calls Pacer) and `start()` (starts Pacer)
     */
    constructor(shell, menu, position, {withProfiles, _, call, start}) {
        this._shell = shell;
        this._withProfiles = withProfiles;
        this._ = _;
        this._callPacer = call;
        this._start = start;
        // In GNOME's menu, a line between its profiles and Pacer's part (a separator first
        // in a section would be hidden).
        this._separator = withProfiles ? null : new shell.PopupMenu.PopupSeparatorMenuItem();
        if (this._separator)
            menu.addMenuItem(this._separator, position++);
        this.section = new shell.PopupMenu.PopupMenuSection();
        menu.addMenuItem(this.section, position);
        this._layout = null;
        this._coreTypeItems = [];
    }

    destroy() {
        this.section.destroy();
        if (this._separator)
            this._separator.destroy();
    }

    // The section is made anew when what it lists changes; the frequencies, which change
    // every second while the menu is open, are written into its items (a section made anew
    // would lose the keyboard's place in it).
    show(view) {
        const layout = JSON.stringify({
            ...view,
            coreTypes: view.coreTypes.map(coreType => ({...coreType, frequency: ''})),
        });
        if (layout === this._layout) {
            view.coreTypes.forEach((coreType, index) =>
                this._coreTypeItems[index].setValue(coreType.frequency));
            return;
        }
        this._layout = layout;
        this._coreTypeItems = [];
        const {PopupMenu} = this._shell;
        const {DetailItem} = widgetClasses(this._shell);
        const _ = this._;
        const section = this.section;
        releaseItems(section);
        section.removeAll();
        if (!view.running) {
            this._addItem(_('Start Pacer'), () => this._start());
            return;
        }
        if (this._withProfiles) {
            for (const {profile, label, active} of view.profiles) {
                const item = this._addItem(label, () => this._callPacer('SetProfile', [profile]));
                item.setOrnament(active ? PopupMenu.Ornament.CHECK : PopupMenu.Ornament.NONE);
            }
            section.addMenuItem(new PopupMenu.PopupSeparatorMenuItem());
        }
        for (const coreType of view.coreTypes) {
            const item = new DetailItem({
                title: coreType.label,
                value: coreType.frequency,
                detail: [coreType.epp, coreType.governor].filter(part => part !== '').join(' · '),
            });
            this._coreTypeItems.push(item);
            section.addMenuItem(item);
        }
        for (const line of [...view.limits.map(limit => limit.line), ...view.notes])
            this._addLine(line);
        // A finding in its one line: its Fix a button, its details in Pacer's window, which a
        // click on the line opens.
        for (const finding of view.findings) {
            const fix = {label: _('Fix'), activate: () => this._callPacer('Fix', [finding.key])};
            const item = new DetailItem({
                title: finding.summary,
                iconName: finding.warning ? 'dialog-warning-symbolic' : 'dialog-information-symbolic',
                action: finding.fixable ? fix : null,
                reactive: true,
            });
            item.finding = finding;
            // None where no accessibility bus runs.
            const accessible = item.get_accessible();
            if (accessible)
                accessible.accessible_description = finding.cause;
            item.connect('activate', () => this._openWindow());
            section.addMenuItem(item);
        }
        section.addMenuItem(new PopupMenu.PopupSeparatorMenuItem());
        const measure = this._addItem(view.measuring ? _('Measuring…') : _('Measure Ramp-Up'),
            () => this._callPacer('MeasureRamp', []));
        measure.setSensitive(!view.measuring);
        this._addItem(_('Open Pacer'), () => this._openWindow());
    }

    // Pacer's window, on the page it showed last.
    _openWindow() {
        this._callPacer('ShowWindow', ['']);
    }

    // A line that says something and does nothing, whole: wrapped, not cut, where the menu
    // is narrower than its words.
    _addLine(text) {
        const item = new this._shell.PopupMenu.PopupMenuItem(text, {reactive: false});
        item.label.x_expand = true;
        item.label.clutter_text.line_wrap = true;
        item.label.clutter_text.ellipsize = 0; // Pango.EllipsizeMode.NONE
        this.section.addMenuItem(item);
    }

    _addItem(label, activate) {
        const item = new this._shell.PopupMenu.PopupMenuItem(label);
        item.connect('activate', activate);
        this.section.addMenuItem(item);
        return item;
    }
}

/**
 * Lets go of a section's items before they are destroyed: the pointer's hover and the
 * keyboard's focus. GNOME Shell 43 unsets both while destroying an item under the pointer or
 * in focus, and its handlers then reach the item's JavaScript half after it is gone (Gjs
 * logs "has been already disposed" criticals): an item made anew where the one clicked
 * was, under the pointer, and destroyed at the next change of the menu.
 *
 * @param {object} section a PopupMenuSection
 */
function releaseItems(section) {
    const stage = section.actor.get_stage();
    const focus = stage ? stage.get_key_focus() : null;
    for (const item of section._getMenuItems()) {
        if (focus && item.contains(focus))
            section.actor.grab_key_focus();
        item.track_hover = false;
    }
}
