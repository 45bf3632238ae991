#!/usr/bin/env python3
"""Writes a Maven pom whose runtime classpath is Solr RELEASE's, for releases whose
solr-core POM Maven cannot read (10.0.0: built with Gradle, the POM lists five Jackson
dependencies without a version and has no dependencyManagement, so Maven stops with
"'dependencies.dependency.version' for com.fasterxml.jackson.core:jackson-core:jar is
missing" and drops every transitive dependency of solr-core).

The POM is read leniently here instead: the generated pom depends on solr-core's jar alone
(its POM excluded with `*:*`), on each dependency solr-core declares (scope and exclusions
kept, optional ones left out as Maven would), and on solr-test-framework (solr-core
excluded); a version solr-core leaves out comes from the BOMs solr-solrj of the same release
imports (its POM is valid; for 10.0.0: com.fasterxml.jackson:jackson-bom 2.20.0), copied
into the generated pom's dependencyManagement. Maven then resolves everything else as usual.

    lenient-pom.py RELEASE OUT_POM [--fallback GROUP:ARTIFACT:VERSION]...

--fallback: when the jar solr-core names for GROUP:ARTIFACT is neither in ~/.m2 nor served
by the repository, take VERSION instead (a release of the same line), or leave the
dependency out when VERSION is `-`; each one used is reported on stderr. Only the named
artifacts are checked.

POMs are read from ~/.m2 when present, else from Maven Central by their direct URL.
"""

import os
import sys
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET

NS = "http://maven.apache.org/POM/4.0.0"
M = {"m": NS}
CENTRAL = os.environ.get("MAVEN_CENTRAL", "https://repo1.maven.org/maven2")
LOCAL = os.path.expanduser("~/.m2/repository")


def path(group, artifact, version, ext):
    return f"{group.replace('.', '/')}/{artifact}/{version}/{artifact}-{version}.{ext}"


def served(group, artifact, version):
    """Whether the jar of group:artifact:version is in ~/.m2 or served by the repository."""
    rel = path(group, artifact, version, "jar")
    if os.path.isfile(os.path.join(LOCAL, rel)):
        return True
    try:
        with urllib.request.urlopen(urllib.request.Request(f"{CENTRAL}/{rel}", method="HEAD"), timeout=60):
            return True
    except urllib.error.HTTPError as e:
        if e.code == 404:
            return False
        sys.exit(f"lenient-pom: cannot check {CENTRAL}/{rel}: {e}")
    except OSError as e:
        sys.exit(f"lenient-pom: cannot check {CENTRAL}/{rel}: {e}")


def pom(group, artifact, version):
    """The parsed POM of group:artifact:version (local repository first)."""
    rel = path(group, artifact, version, "pom")
    local = os.path.join(LOCAL, rel)
    if os.path.isfile(local):
        return ET.parse(local).getroot()
    url = f"{CENTRAL}/{rel}"
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            return ET.fromstring(r.read())
    except OSError as e:
        sys.exit(f"lenient-pom: cannot read {url}: {e}")


def text(el, tag):
    v = el.findtext(f"m:{tag}", None, M)
    return v.strip() if v else None


def dependency(group, artifact, version=None, scope=None, exclusions=()):
    d = ET.Element("dependency")
    for tag, val in (("groupId", group), ("artifactId", artifact), ("version", version), ("scope", scope)):
        if val:
            ET.SubElement(d, tag).text = val
    if exclusions:
        ex = ET.SubElement(d, "exclusions")
        for g, a in exclusions:
            e = ET.SubElement(ex, "exclusion")
            ET.SubElement(e, "groupId").text = g
            ET.SubElement(e, "artifactId").text = a
    return d


def core_dependencies(core, fallbacks):
    """solr-core's declared dependencies as generated-pom elements (no test/optional ones),
    with FALLBACKS ((group, artifact) -> version or "-") applied where the jar is missing."""
    out = []
    for d in core.findall("m:dependencies/m:dependency", M):
        scope = text(d, "scope") or "compile"
        if scope not in ("compile", "runtime") or text(d, "optional") == "true":
            continue
        if text(d, "type") not in (None, "jar") or text(d, "classifier"):
            sys.exit(f"lenient-pom: unexpected dependency {ET.tostring(d, 'unicode')}")
        group, artifact, version = text(d, "groupId"), text(d, "artifactId"), text(d, "version")
        fallback = fallbacks.get((group, artifact))
        if fallback and version and not served(group, artifact, version):
            what = "left out" if fallback == "-" else f"{fallback} taken instead"
            print(f"lenient-pom: {group}:{artifact}:{version} is not served here: {what}", file=sys.stderr)
            if fallback == "-":
                continue
            version = fallback
        excl = [(text(e, "groupId"), text(e, "artifactId")) for e in d.findall("m:exclusions/m:exclusion", M)]
        out.append(dependency(group, artifact, version, scope, excl))
    return out


def parse_fallbacks(args):
    out = {}
    while args:
        flag, value, args = args[0], (args[1:2] or [""])[0], args[2:]
        parts = value.split(":")
        if flag != "--fallback" or len(parts) != 3 or not all(parts):
            sys.exit(f"lenient-pom: bad option {flag} {value} (--fallback GROUP:ARTIFACT:VERSION|-)")
        out[(parts[0], parts[1])] = parts[2]
    return out


def managed_boms(solrj):
    """The BOM imports of solr-solrj's dependencyManagement (the versions solr-core omits)."""
    dm = solrj.find("m:dependencyManagement", M)
    boms = dm.findall("m:dependencies/m:dependency", M) if dm is not None else []
    out = []
    for b in boms:
        d = dependency(text(b, "groupId"), text(b, "artifactId"), text(b, "version"), text(b, "scope"))
        ET.SubElement(d, "type").text = text(b, "type") or "jar"
        out.append(d)
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: lenient-pom.py RELEASE OUT_POM [--fallback GROUP:ARTIFACT:VERSION|-]...")
    release, out_path = sys.argv[1], sys.argv[2]
    fallbacks = parse_fallbacks(sys.argv[3:])
    core = pom("org.apache.solr", "solr-core", release)
    solrj = pom("org.apache.solr", "solr-solrj", release)
    deps = core_dependencies(core, fallbacks)
    unversioned = [d.findtext("artifactId") for d in deps if d.find("version") is None]
    boms = managed_boms(solrj)
    if unversioned and not boms:
        sys.exit(f"lenient-pom: solr-core {release} gives no version for {unversioned} and solr-solrj imports no BOM")

    root = ET.Element("project", xmlns=NS)
    for tag, val in (("modelVersion", "4.0.0"), ("groupId", "dev.solrbench"),
                     ("artifactId", f"solr-launcher-lenient-{release}"), ("version", "0.1.0"),
                     ("packaging", "pom")):
        ET.SubElement(root, tag).text = val
    dm = ET.SubElement(ET.SubElement(root, "dependencyManagement"), "dependencies")
    dm.extend(boms)
    ds = ET.SubElement(root, "dependencies")
    ds.append(dependency("org.apache.solr", "solr-core", release, "compile", [("*", "*")]))
    ds.append(dependency("org.apache.solr", "solr-test-framework", release, "compile",
                         [("org.apache.solr", "solr-core")]))
    ds.extend(deps)
    ET.indent(root)
    ET.register_namespace("", NS)
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n")
    print(f"lenient-pom: {out_path}: solr-core {release} + {len(deps)} declared dependencies "
          f"({len(unversioned)} without a version, from {len(boms)} BOM(s) of solr-solrj)", file=sys.stderr)


if __name__ == "__main__":
    main()
