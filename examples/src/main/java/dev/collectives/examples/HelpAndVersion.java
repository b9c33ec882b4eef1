package dev.collectives.examples;

import picocli.CommandLine.Option;

/**
 * {@code -h}/{@code --help} and {@code -V}/{@code --version}, worded as every command's are, for a command that runs
 * on its own (the runner, a benchmark's {@code main}): {@code @Mixin HelpAndVersion options = new HelpAndVersion();}
 * beside {@code versionProvider = BuildVersion.class}.
 */
public final class HelpAndVersion {
    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "show this help, and exit",
            order = 100)
    boolean help;

    @Option(
            names = {"-V", "--version"},
            versionHelp = true,
            description = "print the version, and exit",
            order = 101)
    boolean version;
}
