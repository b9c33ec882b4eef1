// The processor path of a user's project holds the processor, collectives-api and JavaPoet: nothing native.
def log = new File(basedir, 'build.log').text
def paths = (log =~ /-processorpath\s+(\S+)/).collect { it[1] }
assert !paths.isEmpty() : 'the compiler was given no -processorpath'
paths.each { path ->
    def jars = path.split(File.pathSeparator).collect { new File(it).name }
    assert jars.any { it.startsWith('collectives-processor-') } : "no processor on the processor path: $jars"
    assert jars.any { it.startsWith('collectives-api-') } : "no collectives-api on the processor path: $jars"
    def unwanted = jars.findAll { it.startsWith('javacpp') || it.startsWith('collectives-runtime') }
    assert unwanted.isEmpty() : "the processor path holds $unwanted: $jars"
}
return true
